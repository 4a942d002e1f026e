"""oxidnn.Model against committed OpenVINO cases (tests/ov_cases/ of the repository)."""
import threading
from pathlib import Path

import numpy as np
import pytest

import oxidnn

OV_CASES = Path(__file__).resolve().parents[2] / "tests" / "ov_cases"


def read_case(name):
    """({input name: array}, {output name: array}) from the case's case.txt."""
    ins, outs = {}, {}
    for line in (OV_CASES / name / "case.txt").read_text().splitlines():
        kind, *rest = line.split("\t")
        if kind in ("input", "output"):
            (ins if kind == "input" else outs)[rest[0]] = np.load(OV_CASES / name / rest[1])
    return ins, outs


@pytest.mark.parametrize("name", ["ti_lstm_seed_example", "ti_gru_lbr_reverse_last", "activations"])
def test_ov_case(name):
    ins, outs = read_case(name)
    model = oxidnn.Model(OV_CASES / name / "model.xml")
    assert [(t.name, t.shape, t.dtype) for t in model.inputs] == \
        [(k, v.shape, v.dtype) for k, v in ins.items()]
    assert [t.name for t in model.outputs] == list(outs)
    for _ in range(2):
        got = model(ins)
        assert list(got) == list(outs)
        for k, want in outs.items():
            assert got[k].dtype == want.dtype and got[k].shape == want.shape
            np.testing.assert_allclose(got[k], want, rtol=0, atol=1e-5)


def test_threads_share_a_model():
    ins, outs = read_case("ti_lstm_seed_example")
    model = oxidnn.Model(OV_CASES / "ti_lstm_seed_example" / "model.xml")
    results = []

    def run():
        results.extend(model(ins) for _ in range(5))

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 15
    for got in results:
        for k, want in outs.items():
            np.testing.assert_allclose(got[k], want, rtol=0, atol=1e-5)


def test_model_errors():
    with pytest.raises(oxidnn.Error) as e:
        oxidnn.Model(OV_CASES / "no_such_case" / "model.xml")
    assert e.value.status == oxidnn._lib.C.dnnl_invalid_arguments
    assert "model.xml" in e.value.message
    model = oxidnn.Model(OV_CASES / "activations" / "model.xml")
    with pytest.raises(KeyError):
        model({})
    with pytest.raises(oxidnn.Error):  # a shape the model does not declare
        model({"x": np.zeros((1, 2, 3, 4, 5), np.float32)})
