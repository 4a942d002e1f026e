#!/usr/bin/env python3
"""Writes the malformed-IR corpus tests/ir_malformed/ (plain Python, no OpenVINO needed).

Each variant is a valid small IR with one defect: `NAME.xml` (+ `NAME.bin`), listed in
`expect.tsv` as `NAME<TAB>substring<TAB>substring...`: the substrings the loader's error
message must contain (the layer it names and the problem). Checked by tests/graph_malformed.rs.
Run from the repository root: python3 tools/ov_cases/make_malformed.py
"""

import os
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "tests")
OUT = os.path.join(ROOT, "ir_malformed")

# x [2,3] + c [3] -> Gather(indices [2] i64, axis 0) -> Result
BASE = """<?xml version="1.0"?>
<net name="base" version="11">
	<layers>
		<layer id="0" name="x" type="Parameter" version="opset1">
			<data shape="2,3" element_type="f32" />
			<output>
				<port id="0" precision="FP32" names="x"><dim>2</dim><dim>3</dim></port>
			</output>
		</layer>
		<layer id="1" name="c" type="Const" version="opset1">
			<data element_type="f32" shape="3" offset="0" size="12" />
			<output>
				<port id="0" precision="FP32"><dim>3</dim></port>
			</output>
		</layer>
		<layer id="2" name="add" type="Add" version="opset1">
			<data auto_broadcast="numpy" />
			<input>
				<port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port>
				<port id="1" precision="FP32"><dim>3</dim></port>
			</input>
			<output>
				<port id="2" precision="FP32" names="sum"><dim>2</dim><dim>3</dim></port>
			</output>
		</layer>
		<layer id="3" name="idx" type="Const" version="opset1">
			<data element_type="i64" shape="2" offset="12" size="16" />
			<output>
				<port id="0" precision="I64"><dim>2</dim></port>
			</output>
		</layer>
		<layer id="4" name="axis" type="Const" version="opset1">
			<data element_type="i64" shape="" offset="28" size="8" />
			<output>
				<port id="0" precision="I64" />
			</output>
		</layer>
		<layer id="5" name="gather" type="Gather" version="opset8">
			<data batch_dims="0" />
			<input>
				<port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port>
				<port id="1" precision="I64"><dim>2</dim></port>
				<port id="2" precision="I64" />
			</input>
			<output>
				<port id="3" precision="FP32" names="y"><dim>2</dim><dim>3</dim></port>
			</output>
		</layer>
		<layer id="6" name="out" type="Result" version="opset1">
			<input>
				<port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port>
			</input>
		</layer>
	</layers>
	<edges>
		<edge from-layer="0" from-port="0" to-layer="2" to-port="0" />
		<edge from-layer="1" from-port="0" to-layer="2" to-port="1" />
		<edge from-layer="2" from-port="2" to-layer="5" to-port="0" />
		<edge from-layer="3" from-port="0" to-layer="5" to-port="1" />
		<edge from-layer="4" from-port="0" to-layer="5" to-port="2" />
		<edge from-layer="5" from-port="3" to-layer="6" to-port="0" />
	</edges>
</net>
"""
BASE_BIN = struct.pack("<3f", 1.0, 2.0, 3.0) + struct.pack("<2q", 1, -1) + struct.pack("<q", 0)

# Const 1.0 broadcast to the constant shape [n, n] (folded at load time).
HUGE_BROADCAST = """<?xml version="1.0"?>
<net name="huge" version="11">
	<layers>
		<layer id="0" name="d" type="Const" version="opset1">
			<data element_type="f32" shape="1" offset="0" size="4" />
			<output><port id="0" precision="FP32"><dim>1</dim></port></output>
		</layer>
		<layer id="1" name="t" type="Const" version="opset1">
			<data element_type="i64" shape="2" offset="4" size="16" />
			<output><port id="0" precision="I64"><dim>2</dim></port></output>
		</layer>
		<layer id="2" name="b" type="Broadcast" version="opset3">
			<data mode="numpy" />
			<input>
				<port id="0" precision="FP32"><dim>1</dim></port>
				<port id="1" precision="I64"><dim>2</dim></port>
			</input>
			<output><port id="2" precision="FP32"><dim>{n}</dim><dim>{n}</dim></port></output>
		</layer>
		<layer id="3" name="r" type="Result" version="opset1">
			<input><port id="0" precision="FP32"><dim>{n}</dim><dim>{n}</dim></port></input>
		</layer>
	</layers>
	<edges>
		<edge from-layer="0" from-port="0" to-layer="2" to-port="0" />
		<edge from-layer="1" from-port="0" to-layer="2" to-port="1" />
		<edge from-layer="2" from-port="2" to-layer="3" to-port="0" />
	</edges>
</net>
"""

TI_DIR = os.path.join(ROOT, "ov_cases", "ti_gru_lbr_reverse_last")


def variants():
    """(name, xml, bin, expected substrings)."""
    v = []

    def sub(name, old, new, *expect, count=1, base=BASE, binary=BASE_BIN):
        assert base.count(old) >= 1, (name, old)
        v.append((name, base.replace(old, new, count), binary, list(expect)))

    v.append(("bad_xml_truncated", BASE[: len(BASE) // 2], BASE_BIN, ["malformed XML"]))
    v.append(("not_utf8", BASE.replace('name="base"', 'name="ba\udcffse"').encode("utf-8", "surrogateescape"),
              BASE_BIN, ["not valid UTF-8"]))
    sub("dtd_refused", '<?xml version="1.0"?>', '<?xml version="1.0"?>\n<!DOCTYPE net [<!ENTITY e "x">]>',
        "malformed XML")
    sub("wrong_root", '<net name="base" version="11">', '<model name="base" version="11">', "expected <net>",
        base=BASE.replace("</net>", "</model>"))
    sub("unsupported_version", 'version="11">', 'version="7">', "IR version 7 is not supported")
    sub("missing_version", '<net name="base" version="11">', '<net name="base">', "'version'")
    sub("layer_missing_id", '<layer id="2" name="add"', '<layer name="add"', "<layer> has no 'id'")
    sub("layer_missing_type", 'name="add" type="Add"', 'name="add"', '<layer id="2">', "'type'")
    sub("duplicate_layer_id", '<layer id="4" name="axis"', '<layer id="3" name="axis"',
        'layer 3 "axis"', "duplicate layer id 3")
    sub("missing_attribute", '<data shape="2,3" element_type="f32" />', '<data shape="2,3" />',
        'layer 0 "x"', "missing attribute 'element_type'")
    sub("bad_attribute_value", '<data shape="2,3" element_type="f32" />', '<data shape="2,x" element_type="f32" />',
        'layer 0 "x"', "shape=\"2,x\"")
    sub("unknown_op", 'type="Add"', 'type="FancyAdd"', 'layer 2 "add"', "unknown op type 'FancyAdd'")
    sub("dangling_edge", 'to-layer="5" to-port="2"', 'to-layer="42" to-port="2"', "to-layer 42 does not exist")
    sub("unconnected_input", '<edge from-layer="4" from-port="0" to-layer="5" to-port="2" />', "",
        'layer 5 "gather"', "input port 2 is not connected")
    sub("bad_from_port", 'from-layer="2" from-port="2"', 'from-layer="2" from-port="7"',
        'from-port 7 is not an output port of layer 2 "add"')
    sub("bad_to_port", 'to-layer="5" to-port="1"', 'to-layer="5" to-port="9"',
        'to-port 9 is not an input port of layer 5 "gather"')
    sub("two_edges_one_input", '<edge from-layer="4" from-port="0" to-layer="5" to-port="2" />',
        '<edge from-layer="4" from-port="0" to-layer="5" to-port="1" />', 'layer 5 "gather"', "two incoming edges")
    sub("cycle", '<edge from-layer="0" from-port="0" to-layer="2" to-port="0" />',
        '<edge from-layer="5" from-port="3" to-layer="2" to-port="0" />', "cycle", 'layer 2 "add"', 'layer 5 "gather"')
    sub("offset_beyond_bin", 'offset="28" size="8"', 'offset="30" size="8"',
        'layer 4 "axis"', "beyond the end of the .bin (36 bytes)")
    sub("negative_offset", 'offset="28" size="8"', 'offset="-8" size="8"', 'layer 4 "axis"', "negative")
    sub("size_too_small", 'shape="2" offset="12" size="16"', 'shape="2" offset="12" size="12"',
        'layer 3 "idx"', "too small")
    sub("const_bad_element_type", 'element_type="i64" shape="2"', 'element_type="q17" shape="2"',
        'layer 3 "idx"', "not a supported element type")
    sub("wrong_output_dims", '<port id="2" precision="FP32" names="sum"><dim>2</dim><dim>3</dim>',
        '<port id="2" precision="FP32" names="sum"><dim>2</dim><dim>4</dim>',
        'layer 2 "add"', "output port 2 declares dims [2,4] but the inferred shape is [2,3]")
    sub("wrong_input_dims", '<port id="1" precision="FP32"><dim>3</dim></port>',
        '<port id="1" precision="FP32"><dim>5</dim></port>', 'layer 2 "add"', "input port 1 declares dims [5]")
    sub("duplicate_port_id", '<port id="3" precision="FP32" names="y">', '<port id="2" precision="FP32" names="y">',
        'layer 5 "gather"', "port id 2 is used twice")
    sub("bad_dim_text", '<port id="0" precision="FP32" names="x"><dim>2</dim>',
        '<port id="0" precision="FP32" names="x"><dim>two</dim>', "<dim>two</dim> is not an integer", 'layer 0 "x"')
    sub("dim_below_minus_one", '<port id="0" precision="FP32" names="x"><dim>2</dim>',
        '<port id="0" precision="FP32" names="x"><dim>-5</dim>', "<dim>-5</dim> is below -1")
    sub("wrong_input_count", '\t\t\t\t<port id="2" precision="I64" />\n\t\t\t</input>', "\t\t\t</input>",
        'layer 5 "gather"', "has 2 input ports, expected 3",
        base=BASE.replace('<edge from-layer="4" from-port="0" to-layer="5" to-port="2" />', ""))
    sub("edge_missing_attribute", 'from-layer="3" from-port="0" to-layer="5" to-port="1"',
        'from-layer="3" from-port="0" to-layer="5"', "<edge> has no 'to-port'")
    v.append(("shapes_do_not_broadcast",
              BASE.replace('<data element_type="f32" shape="3" offset="0" size="12" />',
                           '<data element_type="f32" shape="2" offset="0" size="8" />')
                  .replace('<port id="0" precision="FP32"><dim>3</dim></port>',
                           '<port id="0" precision="FP32"><dim>2</dim></port>')
                  .replace('<port id="1" precision="FP32"><dim>3</dim></port>',
                           '<port id="1" precision="FP32"><dim>2</dim></port>'),
              BASE_BIN, ['layer 2 "add"', "do not broadcast"]))
    v.append(("gather_axis_out_of_range", BASE, BASE_BIN[:28] + struct.pack("<q", 5),
              ['layer 5 "gather"', "axis 5 is out of range"]))
    sub("bad_bool_attribute", '<data auto_broadcast="numpy" />', '<data auto_broadcast="sideways" />',
        'layer 2 "add"', 'auto_broadcast="sideways"')

    # Constant folding would allocate a 2^40-element tensor (an abort, not an error, before the
    # loader bounded output sizes).
    huge = 1 << 20
    v.append(("broadcast_too_large", HUGE_BROADCAST.format(n=huge),
              struct.pack("<f", 1.0) + struct.pack("<2q", huge, huge),
              ['layer 2 "b"', "would hold more than 2^32 elements"]))

    with open(os.path.join(TI_DIR, "model.xml")) as fh:
        ti = fh.read()
    with open(os.path.join(TI_DIR, "model.bin"), "rb") as fh:
        ti_bin = fh.read()
    ti_name = next(l for l in ti.splitlines() if 'type="TensorIterator"' in l).split('name="')[1].split('"')[0]
    sub("ti_missing_body", "<body>", "<not_body>", f'layer 2 "{ti_name}"', "has no <body>",
        base=ti.replace("</body>", "</not_body>"), binary=ti_bin)
    sub("ti_bad_internal_layer_id", '<input external_port_id="1" internal_layer_id="1" />',
        '<input external_port_id="1" internal_layer_id="42" />', f'layer 2 "{ti_name}"',
        "internal layer 42 is not a Parameter of the body", base=ti, binary=ti_bin)
    sub("ti_back_edge_from_parameter", '<edge from-layer="8" to-layer="1" />', '<edge from-layer="0" to-layer="1" />',
        f'layer 2 "{ti_name}"', "back edge", "internal layer 0 is not a Result", base=ti, binary=ti_bin)
    sub("ti_stride_zero", 'start="-1" end="0" stride="-1"', 'start="-1" end="0" stride="0"',
        f'layer 2 "{ti_name}"', "stride must not be 0", base=ti, binary=ti_bin)
    sub("ti_body_unknown_op", 'type="GRUCell"', 'type="GRUCellX"', f'in <body> of layer 2 "{ti_name}"',
        "unknown op type 'GRUCellX'", base=ti, binary=ti_bin)
    sub("ti_body_const_beyond_bin", 'offset="488" size="80"', 'offset="498" size="80"',
        f'in <body> of layer 2 "{ti_name}"', "beyond the end of the .bin", base=ti, binary=ti_bin)
    sub("ti_missing_port_map", "<port_map>", "<port_mop>", f'layer 2 "{ti_name}"', "has no <port_map>",
        base=ti.replace("</port_map>", "</port_mop>"), binary=ti_bin)
    sub("ti_bad_hidden_size", 'hidden_size="5"', 'hidden_size="-5"', "hidden_size=-5 must be positive",
        base=ti, binary=ti_bin)
    return v


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    lines = []
    for name, xml, binary, expect in variants():
        data = xml if isinstance(xml, bytes) else xml.encode()
        with open(os.path.join(OUT, name + ".xml"), "wb") as fh:
            fh.write(data)
        with open(os.path.join(OUT, name + ".bin"), "wb") as fh:
            fh.write(binary)
        lines.append("\t".join([name] + expect))
    with open(os.path.join(OUT, "expect.tsv"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print(f"{len(lines)} variants")


if __name__ == "__main__":
    main()
