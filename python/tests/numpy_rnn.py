"""A numpy reference of the recurrent layers from their equations (oneDNN's, written on PyTorch's
parameters: rows in PyTorch's gate order, two biases), one sample and step at a time: layers,
directions, per-sample lengths, peephole, projection, the GRU variants and AUGRU's attention."""
import numpy as np


def sigmoid(a):
    return 1 / (1 + np.exp(-a))


def lstm_step(p, x, state):
    h, c = state
    i, f, g, o = np.split(x @ p["weight_ih"].T + p["bias_ih"] + h @ p["weight_hh"].T
                          + p["bias_hh"], 4)
    peep = p.get("weight_peephole", np.zeros((3, c.size)))
    i, f = sigmoid(i + peep[0] * c), sigmoid(f + peep[1] * c)
    c = f * c + i * np.tanh(g)
    h = sigmoid(o + peep[2] * c) * np.tanh(c)
    return (h @ p["weight_hr"].T if "weight_hr" in p else h), c


def gru_step(p, x, state, linear_before_reset, attention=None):
    """PyTorch's GRU (linear before reset) or oneDNN's vanilla GRU; AUGRU with `attention`."""
    (h,) = state
    xr, xz, xn = np.split(x @ p["weight_ih"].T + p["bias_ih"], 3)
    w_hr, w_hz, w_hn = np.split(p["weight_hh"], 3)
    b_hr, b_hz, b_hn = np.split(p["bias_hh"], 3)
    r, z = sigmoid(xr + h @ w_hr.T + b_hr), sigmoid(xz + h @ w_hz.T + b_hz)
    if linear_before_reset:
        n = np.tanh(xn + r * (h @ w_hn.T + b_hn))
    else:
        n = np.tanh(xn + (r * h) @ w_hn.T + b_hn)
    if attention is not None:
        z = (1 - attention) * z
    return (z * h + (1 - z) * n,)


def rnn_step(p, x, state, nonlinearity):
    a = x @ p["weight_ih"].T + p["bias_ih"] + state[0] @ p["weight_hh"].T + p["bias_hh"]
    return (np.tanh(a) if nonlinearity == "tanh" else np.maximum(a, 0),)


def run(step, params, x, hx, num_layers, bidirectional, lengths=None, attention=None):
    """Time-major `x` (T, N, C), `hx` a list of (L*D, N, size) states; returns (y, [h_n, ...]).
    `step(p, x_t, state, a_t)` advances one sample by one step."""
    T, N, _ = x.shape
    D = 2 if bidirectional else 1
    lengths = [T] * N if lengths is None else lengths
    finals = [np.zeros_like(s, dtype=np.float64) for s in hx]
    layer_in = x.astype(np.float64)
    for layer in range(num_layers):
        outs = []
        for d, sfx in enumerate(("", "_reverse")[:D]):
            p = {k.rsplit("_l", 1)[0]: v.astype(np.float64) for k, v in params.items()
                 if k.endswith(f"_l{layer}{sfx}")}
            p.setdefault("bias_ih", np.zeros(p["weight_ih"].shape[0]))
            p.setdefault("bias_hh", np.zeros(p["weight_hh"].shape[0]))
            out = None
            for b in range(N):
                state = [s[layer * D + d, b].astype(np.float64) for s in hx]
                times = range(lengths[b])
                for t in (reversed(times) if d else times):
                    a = None if attention is None else attention[t, b]
                    state = step(p, layer_in[t, b], state, a)
                    if out is None:
                        out = np.zeros((T, N, state[0].size))
                    out[t, b] = state[0]
                for k, s in enumerate(state):
                    finals[k][layer * D + d, b] = s
            outs.append(out)
        layer_in = np.concatenate(outs, axis=2)
    return layer_in, finals
