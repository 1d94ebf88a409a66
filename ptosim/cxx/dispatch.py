"""From one shim request (JSON) to the matching ptosim API call, issued into the current recorder.

Requests: ``{"op": "TADD", "pc": 1234, "t": {...template args...}, "a": [operands]}``; operand
kinds: ``tile`` (geometry, valid shape, placement), ``gm`` (pointer, shape, stride, layout),
``scalar``, ``bool``, ``enum`` (type and enumerator name), ``event`` (a waited Event, no
operand), ``opaque``. Seeds and data movement are mapped one by one (their template policies
are explicit); every other instruction is mapped from the registry (ptosim/isa/registry.py):
tiles, tensors and scalars fill the Python parameters in C++ order, enums go to the keyword
named by their type (``ENUM_KEYWORDS``), explicit template values to ``TEMPLATE_KEYWORDS``.
"""

from __future__ import annotations

import ctypes
import inspect
import itertools
import json

import numpy as np

from .. import api as pto
from ..dtypes import dtype as as_dtype
from ..enums import TileType
from ..errors import CxxError, PtoSimError
from ..isa import registry
from ..isa.cube.fifo import require_fifo_target
from ..isa.spec import Nibbles
from ..memory import GM_BASE_ADDRESS, SPACE_OF_LOC
from ..tensors import AliasPlacement
from .l1_copies import (
    ACC_STORE_CONV_LAYOUTS,
    CONV_LAYOUTS,
    acc_store_conv,
    conv_load,
    copy_cbuf_to_gm,
    copy_gm_to_cbuf_align_v2,
)
from .mx_intrinsics import load_mx_scales, mad_mx_call
from .onchip_copies import copy_gm_to_ubuf, copy_ubuf_to_gm_align_v2, onchip_copy
from .raw import RawAccess

# the C++ precision knobs <K>Algorithm (FmodS, RemS: the scalar forms' own enums)
_ALGORITHM_ENUMS = ("Div", "Exp", "Log", "Sqrt", "Rsqrt", "Recip", "Pow", "Fmod", "Rem")
_ALGORITHM_ENUMS += ("FmodS", "RemS")
# enum operand / template value type -> Python keyword of the instruction
ENUM_KEYWORDS = {
    "RoundMode": "mode",
    "SaturationMode": "sat",
    "CmpMode": "cmp_mode",
    "MaskPattern": "mask",
    "GatherAxis": "axis",
    "ScatterAxis": "axis",
    "HistByte": "byte",
    "QuantType": "quant",
    "QuantScaleAlg": "scale_alg",
    "AccPhase": "phase",
    "ReluPreMode": "relu",
    "TInsertMode": "mode",
    **{f"{k}Algorithm": "algorithm" for k in _ALGORITHM_ENUMS},
}
_ENUM_PARAMS = frozenset(ENUM_KEYWORDS.values())
# the quantised fixpipe form a pre-quant scalar operand selects (ptosim stops naming it)
# the fixpipe's vector-quantisation forms -> the Python instruction taking ``quant=`` a tile
FIXPIPE_FP = {"TSTORE_FP": "TSTORE", "TMOV_FP": "TMOV", "TEXTRACT_FP": "TEXTRACT",
              "TINSERT_FP": "TINSERT"}  # fmt: skip
# instruction -> keyword of its (non-enum) explicit template value, e.g. TCI<Tile, T, descending>
TEMPLATE_KEYWORDS = {"TCI": "descending", "TTRI": "is_upper_or_lower", "TCVT": "need_set_ctrl"}
# Python signatures that differ from the C++ operand order (vector_isa.md), by operand count:
# C++ TQUANT(dst, src, scale, offset) has no tmp; Python is TQUANT(dst, src, scale, tmp, offset).
POSITIONAL_EXCEPTIONS = {("TQUANT", 4): ("dst", "src", "scale", "offset")}
# ... keyed further by the QuantType: a symmetric quant has no offset, so its 4th tile is the
# tmp of TQUANT<INT8_SYM>(dst, src, scale, tmp) (vector_isa.md 3.15)
POSITIONAL_EXCEPTIONS[("TQUANT", 4, "INT8_SYM")] = ("dst", "src", "scale", "tmp")
# the MX forms: TQUANT<Q, ..., QuantScaleAlg>(dst, src, &exp, &max, &scaling[, &exp_zz])
for _q in ("MXFP8", "MXFP4_E2M1"):
    POSITIONAL_EXCEPTIONS[("TQUANT", 5, _q)] = ("dst", "src", "exp", "group_max", "scaling")
POSITIONAL_EXCEPTIONS[("TQUANT", 6, "MXFP8")] = (
    *POSITIONAL_EXCEPTIONS[("TQUANT", 5, "MXFP8")],
    "exp_zz",
)
# explicitly mapped here (the seeds, data movement, sync), not through the registry
EXPLICIT = {
    "TASSIGN", "TLOAD", "TSTORE", "TMOV", "TEXPANDS", "MGATHER", "MSCATTER", "TSCATTER",
    "set_flag", "wait_flag", "pipe_barrier", "ffts_cross_core_sync", "wait_flag_dev",
    "TMRGSORT", "TPUSH", "TPOP", "TALLOC", "TFREE",
}  # fmt: skip
ROWEXPAND_BINARY = {
    "TROWEXPANDMAX", "TROWEXPANDMIN", "TROWEXPANDADD", "TROWEXPANDSUB", "TROWEXPANDMUL",
    "TROWEXPANDDIV", "TROWEXPANDEXPDIF",
}  # fmt: skip
# the tile locations ptosim models (Bias, Scaling, ScaleLeft/Right: cube buffers it does not)
_TILE_TYPES = frozenset(t.name for t in pto.TileType)
# registered instructions that a C++ kernel cannot reach (Python-only helpers)
NOT_CXX = {"SyncAll"}


# (src, dst) dtypes an FP form quantises (cpu/common.hpp GetVectorPreQuantMode); the others copy
_VECTOR_QUANT_PAIRS = frozenset(
    [("float32", "int8"), ("float32", "uint8")]
    + [("int32", d) for d in ("int8", "uint8", "half", "int16")]
)
FILLPAD_FORMS = {"Normal": "TFILLPAD", "InPlace": "TFILLPAD_INPLACE", "Expand": "TFILLPAD_EXPAND"}


def _pad(text: str):
    """A tile's pad as the shim describes it: an enumerator name, or ``custom:<value>`` (a
    PadValueCustom pad, its bit pattern already read as the element type)."""
    return float(text[len("custom:") :]) if text.startswith("custom:") else text


class Dispatcher:
    """Serves the requests of one block's run of a C++ kernel."""

    def __init__(self, loaded, recorder, buffers):
        self.loaded = loaded
        self.recorder = recorder
        self.buffers = buffers
        self.tiles: dict[int, pto.Tile] = {}
        self.error: BaseException | None = None
        self.used: dict[int, int] = {}  # C++ tile id -> when last TASSIGNed or used (raw.py)
        self._uses = itertools.count()
        self.raw = RawAccess(self)
        self.pipes: dict[int, pto.TPipe] = {}  # C++ TPipe handle -> this core's pipe

    # -- the callback ---------------------------------------------------------------------------
    def handle(self, request: bytes, out) -> int:
        site = None
        try:
            req = json.loads(request)
            site = self.loaded.request_site(req)
            self.recorder.source = site
            self.issue(req, site, out)
            return 0
        except BaseException as exc:  # stored and re-raised by CxxKernel after the unwind
            self.error = _located(exc, site)
            return 1
        finally:
            self.recorder.source = None

    # -- operands -------------------------------------------------------------------------------
    def tile(self, d: dict) -> pto.Tile:
        t = self.tiles.get(d["id"])
        static = d["svr"] > 0 and d["svc"] > 0
        if t is None:
            t = pto.Tile(
                d["loc"], d["dt"], d["r"], d["c"], d["bl"],
                valid=(d["svr"], d["svc"]) if static else None,
                slayout=d["sl"], fractal=d["fr"], pad=_pad(d["pad"]), compact=d.get("cm", "Null"),
            )  # fmt: skip
            self.tiles[d["id"]] = t
        if not static:
            vr = d["svr"] if d["svr"] > 0 else d["vr"]
            vc = d["svc"] if d["svc"] > 0 else d["vc"]
            if t.static_valid or t.valid != (vr, vc):
                t.set_valid(vr, vc)
        t.mad_tf32 = d.get("tf32") or None  # SetMadTF32Mode (the cube's fp32 input rounding)
        placed = t.placement.address if t.placement is not None else None
        if d["as"] and placed != d["addr"]:  # a copy of an assigned tile: same storage
            self.place_copy(t, d)
        self.touch(d["id"])
        return t

    def place_copy(self, t: pto.Tile, d: dict) -> None:
        """Place a C++ copy of an assigned tile (a tile passed by value, or assigned) at its
        address. While the tile it was copied from still lives there it is that tile's binding
        (an alias, like a TRESHAPE view): a helper that writes its by-value parameter writes the
        caller's tile, not a second tile over the same bytes (F204)."""
        org = self.tiles.get(d.get("org", d["id"]))
        same_bytes = (
            org is not None
            and org is not t
            and org.placement is not None
            and org.placement.address == d["addr"]
            and org.geom.size_bytes == t.geom.size_bytes
        )
        if same_bytes:
            t.placement = AliasPlacement(org.placement, 0)
            return
        pto.TASSIGN(t, d["addr"])

    def foreign(self, d: dict) -> bool:
        """Whether a tile is of a buffer this core lacks (a Vec tile on the cube core ...).
        Mixed kernels place every tile in code both halves share; on the device a TASSIGN is
        only an address, so ptosim records it where the tile is used (rule core-buffer there)."""
        space = SPACE_OF_LOC[TileType[d["loc"]]]
        arch = self.recorder.program.arch
        if d["loc"] != "Vec" and arch.spec.cube.raw_access_cube_tiles:
            return False  # cpu: every tile is host memory, reached by raw access from any core
        return arch.size_of(space) is None

    def touch(self, tile_id: int) -> None:
        self.used[tile_id] = next(self._uses)

    def tile_over(self, ub_address: int) -> pto.Tile | None:
        """The tile most recently TASSIGNed or used whose storage holds ``ub_address``."""
        for tile_id in sorted(self.used, key=self.used.get, reverse=True):
            t = self.tiles[tile_id]
            if t.placement is None or t.placement.auto:
                continue  # C++ data() of a tile without TASSIGN is not in UB terms
            placed = t.placement.address
            if placed is not None and placed <= ub_address < placed + t.geom.size_bytes:
                return t
        return None

    def gm_spans(self):
        """(buffer, host address of its first byte) of each GM buffer passed to the kernel."""
        base = self.loaded.gm_base - pto_gm_base()
        return [(buf, base + buf.address) for buf in self.buffers]

    def gm_over(self, ptr: int, what: str = "pointer"):
        """(buffer, byte offset) of a host pointer into the GM window, or a CxxError."""
        for buf, start in self.gm_spans():
            if start <= ptr < start + max(buf.nbytes, 1):
                return buf, ptr - start
        raise CxxError(
            f"{what} (GM address {ptr - self.loaded.gm_base + pto_gm_base():#x}) is not inside "
            f"any GM buffer passed to the kernel ({self.buffers_text()})"
        )

    def buffers_text(self) -> str:
        text = ", ".join(
            f"#{b.buffer_id} [{b.address:#x}, {b.address + b.nbytes:#x})" for b in self.buffers
        )
        return text or "none"

    def global_tensor(self, d: dict) -> pto.GlobalTensor:
        dt = as_dtype(d["dt"])
        buf, off = self.gm_over(d["ptr"], "GlobalTensor pointer")
        if off % dt.size_bytes:
            raise CxxError(
                f"GlobalTensor pointer is {off} bytes into GM buffer #{buf.buffer_id}, "
                f"not a multiple of its {dt.name} element size"
            )
        offset = off // dt.size_bytes
        nibbles = self.recorder.program.arch.spec.layout.nibbles
        if dt.packed and nibbles.get(dt) is Nibbles.FLAT:
            offset *= 2  # two elements per byte: a pointer one byte on is two elements on
        return pto.GlobalTensor(
            buf, shape=d["shape"], stride=d["stride"], layout=d["lay"], offset=offset, dtype=dt,
        )  # fmt: skip

    def operand(self, d: dict):
        k = d["k"]
        if k == "tile":
            return self.tile(d)
        if k == "gm":
            return self.global_tensor(d)
        if k == "scalar":
            v = d["v"]
            return float(v) if isinstance(v, str) else v
        if k == "bool":
            return bool(d["v"])
        if k == "enum":
            return d.get("name", d["v"])
        raise CxxError(f"operand of C++ type {d.get('type', k)!r} is not a PTO operand")

    # -- requests -------------------------------------------------------------------------------
    def issue(self, req: dict, site: str | None, out) -> None:
        op = req["op"]
        t = req.get("t", {})
        raw = [d for d in req.get("a", []) if d["k"] != "event"]
        unmodelled = [d["loc"] for d in raw if d["k"] == "tile" and d["loc"] not in _TILE_TYPES]
        if op == "TASSIGN" and unmodelled:
            return  # placing a cube buffer's tile: the instruction that uses it stops the run
        if unmodelled:
            raise CxxError(
                f"{op} on a {unmodelled[0]} tile is not implemented by ptosim (the cube unit's "
                f"{unmodelled[0]} buffer, and TMATMUL and the instructions that use it, are not "
                "modelled)"
            )
        if op == "TASSIGN" and self.foreign(raw[0]):
            return  # an address only (see ``foreign``)
        if op == "TASSIGN":
            d = raw[0]
            tile = self.tiles.get(d["id"]) or self.tile(dict(d, **{"as": False}))
            pto.TASSIGN(tile, d["addr"])
            self.touch(d["id"])
        elif op == "raw":
            self.raw.access(req, site, out)
        elif op == "raw_log":
            self.raw.log(req)
        elif op == "raw_writes":
            self.raw.replay_writes(req)
        elif op in ("set_flag", "wait_flag"):
            getattr(pto, op)(getattr(pto, req["src"]), getattr(pto, req["dst"]), req["event"])
        elif op == "pipe_barrier":
            pto.pipe_barrier(getattr(pto, req["pipe"]))
        elif op == "ffts_cross_core_sync":
            pto.ffts_cross_core_sync(getattr(pto, req["pipe"]), req["config"])
        elif op == "wait_flag_dev":
            pto.wait_flag_dev(req["flag"])
        elif op in ("set_intra_block", "wait_intra_block"):
            getattr(pto, op)(getattr(pto, req["pipe"]), req["id"])
        elif op == "copy_cbuf_to_gm":
            copy_cbuf_to_gm(self, req)
        elif op == "copy_gm_to_cbuf_align_v2":
            copy_gm_to_cbuf_align_v2(self, req)
        elif op == "copy_gm_to_ubuf":
            copy_gm_to_ubuf(self, req)
        elif op == "copy_ubuf_to_gm_align_v2":
            copy_ubuf_to_gm_align_v2(self, req)
        elif op in ("copy_ubuf_to_cbuf", "copy_cbuf_to_ubuf"):
            onchip_copy(self, op, req)
        elif op in ("load_cbuf_to_ca_mx", "load_cbuf_to_cb_mx"):
            load_mx_scales(op, req)
        elif op == "mad_mx":
            mad_mx_call(req)
        elif op in (
            "Tile.GetValue",
            "Tile.SetValue",
            "GlobalTensor.GetValue",
            "GlobalTensor.SetValue",
        ):
            self.scalar_access(op, req, out)
        elif op == "launch" or op.startswith("acl."):
            raise CxxError(
                "a kernel launch <<<...>>> or an ACL runtime call is host code: "
                "run the test folder with `ptosim test`"
            )
        elif op in ("TPipe", "TPipe.destroy") or op in FIFO_OPS:
            self.fifo(op, req, out)
        elif op == "__unsupported__":
            raise CxxError(f"{req['what']} is not supported by ptosim")
        else:
            self.instruction(op, t, raw)

    def instruction(self, op: str, t: dict, raw: list[dict]) -> None:
        if op == "TLOAD" and len(raw) > 1 and raw[1].get("lay") in CONV_LAYOUTS:
            conv_load(self, raw)
            return
        if op in ("TSTORE", "TSTORE_FP") and raw and raw[0].get("lay") in ACC_STORE_CONV_LAYOUTS:
            acc_store_conv(self, t, raw, self.operand(raw[2]) if op == "TSTORE_FP" else None)
            return
        ops = [self.operand(d) for d in raw]
        if op == "TLOAD":
            pto.TLOAD(ops[0], ops[1])
        elif op in ("TSTORE", "TMOV"):
            # the fixpipe fields of an Acc source: ReluPreMode, STPhase (no effect on data), a
            # preQuantScalar word (scalar quantisation)
            relu = t.get("relu", "NoRelu")
            quant = int(t["prequant"]) if "prequant" in t else None
            phase = t.get("phase", "Unspecified")
            if op == "TSTORE":
                pto.TSTORE(
                    ops[0], ops[1], atomic=t.get("atomic", "AtomicNone"), relu=relu, quant=quant,
                    phase=phase,
                )  # fmt: skip
            elif len(ops) == 3:  # TMOV(dst, src, tmp): the ND -> ZZ exponent move
                pto.TMOV(ops[0], ops[1], ops[2])
            else:
                pto.TMOV(ops[0], ops[1], relu=relu, quant=quant, phase=phase, **_acc_to_vec(t))
        elif op in ("TEXTRACT", "TINSERT") and "prequant" in t:
            # TEXTRACT / TINSERT<Dst, Acc[, AccToVecMode][, relu]>(dst, acc, preQuantScalar, row,
            # col)
            getattr(pto, op)(
                ops[0], ops[1], ops[2], ops[3], relu=t.get("relu", "NoRelu"),
                quant=int(t["prequant"]), **_acc_to_vec(t),
            )  # fmt: skip
        elif op in ("TEXTRACT", "TINSERT") and "acc_to_vec" in t:
            # TEXTRACT / TINSERT<Dst, Acc, AccToVecMode[, relu]>(dst, acc, row, col)
            getattr(pto, op)(
                ops[0], ops[1], ops[2], ops[3], relu=t.get("relu", "NoRelu"), **_acc_to_vec(t)
            )
        elif op in FIXPIPE_FP:
            # TSTORE_FP(gm, acc, fp), TMOV_FP(dst, acc, fp), TEXTRACT_FP / TINSERT_FP(dst, acc,
            # fp, row, col): the fixpipe with vector quantisation (a Scaling tile)
            kw = {"relu": t.get("relu", "NoRelu"), "quant": ops[2]}
            if op in ("TEXTRACT_FP", "TINSERT_FP") and self.fp_form_is_copy(t, ops):
                # the Scaling tile is not read (no quantisation on this target for the pair)
                getattr(pto, FIXPIPE_FP[op])(ops[0], ops[1], ops[3], ops[4])
            elif op == "TSTORE_FP":
                pto.TSTORE(ops[0], ops[1], atomic=t.get("atomic", "AtomicNone"), **kw)
            elif op == "TMOV_FP":
                pto.TMOV(ops[0], ops[1], phase=t.get("phase", "Unspecified"), **kw,
                         **_acc_to_vec(t))  # fmt: skip
            else:
                getattr(pto, FIXPIPE_FP[op])(ops[0], ops[1], ops[3], ops[4], **kw,
                                             **_acc_to_vec(t))  # fmt: skip
        elif op == "SET_QUANT_SCALAR":
            pto.SET_QUANT_SCALAR(ops[0], t["out_dtype"])
        elif op == "TEXPANDS":
            pto.TEXPANDS(ops[0], ops[1])
        elif op == "MGATHER":
            dst, table, idx = ops[:3]
            coalesce = t.get("coalesce") or _infer_coalesce(raw[0], raw[2])
            pto.MGATHER(
                dst, table, idx, coalesce=coalesce, oob=t.get("oob", "Undefined"),
                scratch=ops[3] if len(ops) > 3 else None, gather_exec=t.get("exec", "Scalar"),
            )  # fmt: skip
        elif op == "MSCATTER":
            table, src, idx = ops[:3]
            coalesce = t.get("coalesce") or _infer_coalesce(raw[1], raw[2])
            pto.MSCATTER(
                table, src, idx, coalesce=coalesce, atomic=t.get("atomic", "None"),
                oob=t.get("oob", "Undefined"), conflict=t.get("conflict"),
            )  # fmt: skip
        elif op == "TSCATTER":
            if "mask" in t:
                pto.TSCATTER(ops[0], ops[1], mask=t["mask"], axis=t["axis"])
            else:
                pto.TSCATTER(*ops[:3])
        elif op == "TFILLPAD" and t.get("value", {}).get("type") == "TFillPadMode":
            # TFILLPAD<TFillPadMode::InPlace / Expand>(dst, src): the named forms
            mode = t["value"]["name"]
            getattr(pto, FILLPAD_FORMS[mode])(ops[0], ops[1])
        elif op == "TROWEXPAND":
            pto.TROWEXPAND(ops[0], ops[1])
        elif op == "TMRGSORT":
            self.mrgsort(t, ops)
        elif op == "TGATHER" and _is_compare_gather(t, raw):
            # TGATHER<..., CmpMode>(dst, src0, kValue, cdst, tmp, offset)
            mode = next(
                d["name"] for d in (t.get("value"), t.get("value2"), *raw)
                if d and d["k"] == "enum" and d.get("type") == "CmpMode"
            )  # fmt: skip
            dst, src0, k_value, cdst, tmp = ops[:5]
            offset = int(ops[5]) if len(ops) > 5 else 0
            pto.TGATHER(dst, src0, k_value, tmp, cmp_mode=mode, cdst=cdst, offset=offset)
        elif op in ROWEXPAND_BINARY and not t:
            getattr(pto, op)(ops[0], ops[1], ops[2], ops[3] if len(ops) > 3 else None)
        else:
            self.generic(op, t, raw, ops)

    def fifo(self, op: str, req: dict, out) -> None:
        """A C++ TPipe: its construction (answers the handle), destruction, and TPUSH / TPOP /
        TALLOC / TFREE (answers the address a TPOP or TALLOC re-points its operand at: the
        on-chip offset of a tile, the host pointer of a GlobalTensor)."""
        if op == "TPipe":
            require_fifo_target()
            if not req["gm"] and self.recorder.program.arch.spec.cube.onchip_cv_paths:
                buf, off = None, 0  # 950: the on-chip FIFO (its slots are in UB / L1)
            elif not req["gm"]:
                raise CxxError(
                    "TPipe with a null GM slot buffer (a FIFO through the consumer's local "
                    "buffer only, as the CPU simulator runs it) is not supported by ptosim: its "
                    "FIFO is a GM ring (give the TPipe a GM buffer of slot_num * slot_size bytes)"
                )
            else:
                buf, off = self.gm_over(req["gm"], "TPipe GM slot buffer")
            pipe = pto.TPipe(
                req["flag"], req["dir"], req["slot_size"], req["slot_num"], buf,
                req["c2v"], req["v2c"], local_slot_num=req["local_slot_num"],
                no_split=req["no_split"], offset_bytes=off, unit_flag=req["unit_flag"],
            )  # fmt: skip
            self.pipes[len(self.pipes) + 1] = pipe
            _answer(out, len(self.pipes))
            return
        pipe = self.pipes[req["pipe"]]
        if op == "TPipe.destroy":
            pipe.destroy()
            return
        d = req["a"][0] if req["a"] else None
        if d is not None and d["k"] == "gm" and op in ("TALLOC", "TPOP"):
            # the tensor is re-pointed at the slot: its own pointer may be anything (null)
            operand = pto.GlobalTensor(
                pipe.buffer, shape=d["shape"], stride=d["stride"], layout=d["lay"],
                dtype=as_dtype(d["dt"]),
            )  # fmt: skip
        else:
            operand = self.operand(d) if d is not None else None
        fn = getattr(pto, op)
        fx = req.get("fixpipe")
        if fx is not None:  # TPUSH<Pipe, Tile, FixpipeParams<...>>
            _fixpipe_modelled(fx)
            where = fn(pipe, operand, req["split"], quant_mode=fx["quant_mode"], relu=fx["relu"],
                       atomic=fx["atomic"], sub_block_id=fx.get("sub_block_id", 0))  # fmt: skip
        elif operand is not None:
            where = fn(pipe, operand, req["split"])
        else:
            where = fn(pipe, split=req["split"])
        if isinstance(operand, pto.Tile) and op == "TPOP":
            _answer(out, operand.placement.address)
        elif isinstance(operand, pto.GlobalTensor) and op in ("TPOP", "TALLOC"):
            _answer(out, self.loaded.gm_base - pto_gm_base() + pipe.buffer.address + where)

    def fp_form_is_copy(self, t: dict, ops: list) -> bool:
        """Whether a TEXTRACT_FP / TINSERT_FP is the plain copy on this target
        (``CubeRules.fp_forms_copy_unquantised``): no ReLU, a pair without quantisation."""
        if not self.recorder.program.arch.spec.cube.fp_forms_copy_unquantised:
            return False
        if t.get("relu", "NoRelu") != "NoRelu" or len(ops) != 5:
            return False
        pair = (ops[1].geom.dtype.name, ops[0].geom.dtype.name)
        return pair not in _VECTOR_QUANT_PAIRS

    def mrgsort(self, t: dict, ops: list) -> None:
        """TMRGSORT's C++ forms (instr.hpp): (dst, tmp, src0..src3) with the exhausted flag, tmp
        being the library's scratch; or the single-tile (dst, src, blockLen)."""
        if t.get("form") == "blockLen":
            pto.TMRGSORT(ops[0], ops[1], block_len=int(ops[2]))
        else:
            pto.TMRGSORT(ops[0], *ops[2:], exhausted=t.get("exhausted") == "true")

    def generic(self, op: str, t: dict, raw: list[dict], ops: list) -> None:
        try:
            spec = registry.spec(op)
        except KeyError:
            raise CxxError(f"{op} is not implemented by ptosim") from None
        kwargs: dict = {}
        positional = []
        for d, v in zip(raw, ops):
            if d["k"] == "enum":
                kw = ENUM_KEYWORDS.get(d.get("type", ""))
                if kw is None:
                    raise CxxError(
                        f"{op}: enum operand {d.get('type')}::{v} is not supported by ptosim"
                    )
                if _keyword_taken(op, spec.function, kw, d):
                    kwargs[kw] = v
            else:
                positional.append(v)
        for key in ("value", "value2"):
            if key in t:
                d = t[key]
                if d["k"] == "enum" and d.get("type") in ENUM_KEYWORDS:
                    if _keyword_taken(op, spec.function, ENUM_KEYWORDS[d["type"]], d):
                        kwargs[ENUM_KEYWORDS[d["type"]]] = d["name"]
                elif d["k"] != "enum" and op in TEMPLATE_KEYWORDS:
                    kwargs[TEMPLATE_KEYWORDS[op]] = self.operand(d)
                else:
                    raise CxxError(f"{op}: template argument {_show(d)} is not supported by ptosim")
        call_positional, call_kwargs = bind(op, spec.function, positional, kwargs)
        spec.function(*call_positional, **call_kwargs)

    def scalar_access(self, op: str, req: dict, out) -> None:
        kind, method = op.split(".")
        d, index = req["a"][0], req["a"][1]["v"]
        obj = self.tile(d) if kind == "Tile" else self.global_tensor(d)
        fn = getattr(obj, method)  # GetValue / SetValue: the session answers them
        if method == "SetValue":
            fn(index, self.operand(req["value"]))
            return
        value = fn(index)
        dt = as_dtype(d["dt"])
        raw = np.asarray(value).astype(dt.np).tobytes()

        ctypes.memmove(out, raw, len(raw))


FIFO_OPS = ("TPUSH", "TPOP", "TALLOC", "TFREE")


def _fixpipe_modelled(fx: dict) -> None:
    """The FixpipeParams fields ptosim models: an ND output (NZ2ND), no clip ReLU, no channel
    split; the others stop the run naming the field."""
    names = {0: "NZ2NZ", 1: "NZ2ND", 2: "NZ2DN"}
    if fx["layout_mode"] != 1:
        raise CxxError(
            f"TPUSH with FixpipeParams LayoutMode_t::{names.get(fx['layout_mode'], '?')} is not "
            "modelled by ptosim (NZ2ND is)"
        )
    if fx["clip_relu"] or fx["channel_split"]:
        raise CxxError(
            "TPUSH with FixpipeParams CLIP_RELU or channel split is not modelled by ptosim"
        )


def _answer(out, value: int) -> None:
    """Hand a 64-bit value back to the C++ caller."""
    ctypes.memmove(out, int(value).to_bytes(8, "little"), 8)


def pto_gm_base() -> int:
    return GM_BASE_ADDRESS


def bind(op: str, fn, positional: list, kwargs: dict) -> tuple[list, dict]:
    """Map operands in C++ order onto the Python parameters of ``fn`` (those not already given
    by keyword, and never those of ``ENUM_KEYWORDS``), honouring ``POSITIONAL_EXCEPTIONS``."""
    special = POSITIONAL_EXCEPTIONS.get((op, len(positional), kwargs.get("quant")))
    special = special or POSITIONAL_EXCEPTIONS.get((op, len(positional)))
    if special is not None:
        return [], dict(kwargs, **dict(zip(special, positional)))
    params = list(inspect.signature(fn).parameters.values())
    out_kwargs = dict(kwargs)
    rest = list(positional)
    for p in params:
        if p.kind is p.VAR_POSITIONAL:
            return rest, out_kwargs
        if p.kind is p.KEYWORD_ONLY or p.name in out_kwargs:
            continue
        if p.name in _ENUM_PARAMS and p.default is not p.empty:
            continue  # an optional mode (TCVT's sat) comes only from a C++ enum operand
        if not rest:
            break
        out_kwargs[p.name] = rest.pop(0)
    if rest:
        raise CxxError(
            f"{op}: {len(positional)} operands; ptosim's {op} takes at most "
            f"{len(positional) - len(rest)}"
        )
    return [], out_kwargs


def _keyword_taken(op: str, fn, kw: str, d: dict) -> bool:
    """Whether ``fn`` takes the keyword of a C++ enum (operand or template value). Without it, a
    precision knob left at DEFAULT is the plain call (dropped); any other value is a C++ form
    ptosim's Python API cannot express (TDIV<DivAlgorithm::HIGH_PRECISION>): stop naming it."""
    params = inspect.signature(fn).parameters
    if kw in params or any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return True
    if kw == "algorithm" and d.get("name") == "DEFAULT":
        return False
    raise CxxError(
        f"{op}<{_show(d)}>: the {d.get('type')} form of {op} is not supported by ptosim "
        f"(ptosim's {op} has no {kw!r} parameter); call {op} without it"
    )


def _show(d: dict) -> str:
    if d["k"] == "enum":
        return f"{d.get('type') or 'enum'}::{d.get('name', d['v'])}"
    return repr(d.get("v"))


def _is_compare_gather(t: dict, raw: list[dict]) -> bool:
    """TGATHER's compare form: a CmpMode (template value or operand) or its six operands."""
    enums = [d for d in (t.get("value"), t.get("value2"), *raw) if d and d["k"] == "enum"]
    return any(d.get("type") == "CmpMode" for d in enums) or len(raw) > 4


def _infer_coalesce(data: dict, idx: dict) -> str:
    """Row/Elem for MGATHER/MSCATTER without an explicit Coalesce (the pre-policy API): an index
    tile of one column selects rows; an index tile shaped like the data selects elements."""
    if idx.get("k") != "tile":
        return "Row"
    if idx["c"] == 1 or (idx["r"] == 1 and data.get("r", 1) > 1):
        return "Row"
    return "Elem"


def _located(exc: BaseException, site: str | None) -> BaseException:
    """The error with the C++ call site in its message (ptosim errors raised before the
    instruction was recorded do not carry one)."""
    if site and isinstance(exc, PtoSimError) and site not in str(exc):
        exc.message = f"{site}: {exc.message}"
        exc.args = (exc.message,)
    return exc


def _acc_to_vec(t: dict) -> dict:
    """The AccToVecMode of a fixpipe copy into a Vec tile (950), as a keyword argument."""
    return {"acc_to_vec": t["acc_to_vec"]} if "acc_to_vec" in t else {}
