"""The 950 MX intrinsics a C++ test kernel calls directly (the library's a5 textract test):
``load_cbuf_to_ca_mx`` / ``load_cbuf_to_cb_mx`` and ``mad_mx``, run as ptosim's MX
instructions (ptosim/isa/cube/mx.py has their semantics) over tiles laid on the addresses:

- a scale load: a uint8 row over the L1 bytes of the fractals it reads, one over the scale-area
  bytes it writes (ScaleLeft in L0A_MX for ``ca``, ScaleRight in L0B_MX for ``cb``);
- ``mad_mx(c, a, b, m, k, n, unitFlag, gemvCtrl, biasBufferCtrl, cmatrixInitVal)``: a Left NZ
  tile of ceil16(m) x k at ``a``, a Right ZN tile of k x ceil16(n) at ``b``, an Acc NZ tile of
  ceil16(m) x ceil16(n) at ``c`` (valid m x k, k x n, m x n), the scale tiles at ``a >> 4`` /
  ``b >> 4`` (ceil16(m) x k / 32 ZZ, k / 32 x ceil16(n) NN), and with biasBufferCtrl a one-row
  float Bias tile at the bias table address the library puts into c's upper 32 bits. With
  m == 1 and gemvCtrl 0 (GEMV mode, TGEMV_MX) the Left and ScaleLeft tiles are one row: the
  first k elements at ``a`` and the first k / 32 scales at ``a >> 4``.
"""

from __future__ import annotations

from .. import api as pto
from ..dtypes import dtype as as_dtype
from ..errors import CxxError
from ..isa.cube.geometry import ceil_to
from ..isa.cube.mx import MX_GROUP, SCALE_FRACTAL_BYTES, SCALE_SHIFT, load_scales, mad_mx

_SCALE_KIND = {"load_cbuf_to_ca_mx": "ScaleLeft", "load_cbuf_to_cb_mx": "ScaleRight"}


ONCHIP_LIMIT = 1 << 32  # on-chip offsets are below 4 GiB (the shim's on-chip range)


def _onchip(req: dict, key: str, what: str) -> int:
    """An address the shim sent as an on-chip offset, or a CxxError (a GM or host pointer)."""
    v = req[key]
    if not 0 <= v < ONCHIP_LIMIT:
        raise CxxError(f"{what} is not a pointer into a tile's on-chip buffer")
    return v


def load_mx_scales(op: str, req: dict) -> None:
    """``load_cbuf_to_ca_mx`` / ``load_cbuf_to_cb_mx`` (module doc)."""
    src_addr = _onchip(req, "src", f"{op} src (an L1 address)")
    dst_addr = _onchip(req, "dst", f"{op} dst (a scale-area address)")
    steps = (req["row_start"], req["col_start"], req["row_steps"], req["col_steps"],
             req["src_stride"], req["dst_stride"])  # fmt: skip
    row_start, col_start, row_steps, col_steps, src_stride, dst_stride = steps
    if row_steps == 0 or col_steps == 0:
        return
    last_src = (row_start + row_steps - 1) * src_stride + col_start + col_steps
    last_dst = (row_steps - 1) * dst_stride + col_steps
    u8 = as_dtype("uint8")
    src = pto.Tile("Mat", u8, 1, last_src * SCALE_FRACTAL_BYTES)
    pto.TASSIGN(src, src_addr)
    dst = pto.Tile(_SCALE_KIND[op], u8, 1, last_dst * SCALE_FRACTAL_BYTES)
    pto.TASSIGN(dst, dst_addr)
    load_scales(op, dst, src, *steps)


def mad_mx_call(req: dict) -> None:
    """``mad_mx`` (module doc)."""
    m, k, n = req["m"], req["k"], req["n"]
    gemv = m == 1 and not req["gemv_ctrl"]  # GEMV mode: the vector and its scales as bytes
    if m == 0 or k == 0 or n == 0:
        return
    if k % MX_GROUP:
        raise CxxError(f"mad_mx: k = {k} is not a whole number of {MX_GROUP}-element scale groups")
    addr = {k: _onchip(req, f"{k}_addr", f"mad_mx {k} (an {s} address)")
            for k, s in (("c", "L0C"), ("a", "L0A"), ("b", "L0B"))}  # fmt: skip
    mr, nc = ceil_to(m, 16), ceil_to(n, 16)
    ar = 1 if gemv else mr  # the Left / ScaleLeft rows
    acc = pto.Tile("Acc", req["c_dt"], mr, nc, "ColMajor", valid=(m, n), slayout="RowMajor",
                   fractal=1024)  # fmt: skip
    a = pto.Tile("Left", req["a_dt"], ar, k, "ColMajor", valid=(m, k), slayout="RowMajor")
    b = pto.Tile("Right", req["b_dt"], k, nc, "RowMajor", valid=(k, n), slayout="ColMajor")
    groups = k // MX_GROUP
    sa = pto.Tile("ScaleLeft", "float8_e8m0", ar, groups, "RowMajor", valid=(m, groups),
                  slayout="RowMajor", fractal=32)  # fmt: skip
    sb = pto.Tile("ScaleRight", "float8_e8m0", groups, nc, "ColMajor", valid=(groups, n),
                  slayout="ColMajor", fractal=32)  # fmt: skip
    pto.TASSIGN(acc, addr["c"])
    pto.TASSIGN(a, addr["a"])
    pto.TASSIGN(b, addr["b"])
    pto.TASSIGN(sa, addr["a"] >> SCALE_SHIFT)
    pto.TASSIGN(sb, addr["b"] >> SCALE_SHIFT)
    bias = None
    if req["bias_ctrl"]:
        bias = pto.Tile("Bias", "float32", 1, nc, valid=(1, n))
        pto.TASSIGN(bias, req["bias"])
    mad_mx(acc, a, sa, b, sb, accumulate=not req["init_zero"], bias=bias, gemv=gemv)
