"""Eight float64 lanes as one LLVM vector value, for numba kernels that work on eight games at once.

numba does not vectorise a loop over eight lanes of small arrays: it cannot
prove that the arrays do not overlap, unrolls the loop and emits scalar
code. These intrinsics hand LLVM ``<8 x double>`` values directly (one
AVX-512 register, or two AVX2 ones on a processor without AVX-512), so the
lane-parallel simplex of :mod:`.stagebatch` is vector code by construction.
Arithmetic is the IEEE operation of each lane (no fused multiply-add, no
reassociation), so a lane computes exactly what scalar code computes.

Arrays passed here must be one-dimensional, C-contiguous float64. ``off``
is the index of lane 0 and must leave eight elements in the array; gather
indices must lie in the array. Neither is checked: the callers' offsets are
multiples of eight within arrays they size.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic, models, overload, register_model

__all__ = ["V8", "M8", "LANES", "prefetch", "vload", "vstore", "vsplat", "viota", "vadd", "vsub", "vmul", "vdiv", "vneg", "vlt",
           "vle", "vgt", "veq", "vand", "vor", "vnot", "vselect", "vmax0", "vget", "vany", "vall", "vgather", "vpermute"]

#: lanes per vector
LANES = 8
_VEC = ir.VectorType(ir.DoubleType(), LANES)
_MASK = ir.VectorType(ir.IntType(1), LANES)
_I64V = ir.VectorType(ir.IntType(64), LANES)


class _Vec8(types.Type):
    def __init__(self):
        super().__init__(name="Vec8")


class _Mask8(types.Type):
    def __init__(self):
        super().__init__(name="Mask8")


#: numba type of eight float64 lanes
V8 = _Vec8()
#: numba type of eight lane flags
M8 = _Mask8()


@register_model(_Vec8)
class _Vec8Model(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, _VEC)


@register_model(_Mask8)
class _Mask8Model(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, _MASK)


def _declare(module, fnty, name):
    """The declaration of ``name`` in ``module``, added if missing."""
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, fnty, name=name)
    return fn


def _data(context, builder, arrty, arr):
    return context.make_array(arrty)(context, builder, arr).data


@intrinsic
def vload(typingctx, arr, off):
    """``arr[off:off + 8]`` as a vector."""
    sig = V8(arr, off)

    def codegen(context, builder, signature, args):
        ptr = builder.gep(_data(context, builder, signature.args[0], args[0]), [args[1]])
        return builder.load(builder.bitcast(ptr, _VEC.as_pointer()), align=8)

    return sig, codegen


@intrinsic
def vstore(typingctx, arr, off, v):
    """``arr[off:off + 8] = v``."""
    sig = types.void(arr, off, v)

    def codegen(context, builder, signature, args):
        ptr = builder.gep(_data(context, builder, signature.args[0], args[0]), [args[1]])
        builder.store(args[2], builder.bitcast(ptr, _VEC.as_pointer()), align=8)
        return context.get_dummy_value()

    return sig, codegen


def prefetch(arr, off):
    """Ask for ``arr[off]`` to be brought into the cache: a hint, nothing is read (as plain Python, nothing at all)."""


@overload(prefetch)
def _prefetch_jit(arr, off):
    def impl(arr, off):
        _prefetch(arr, off)

    return impl


@intrinsic
def _prefetch(typingctx, arr, off):
    """:func:`prefetch` in compiled code: LLVM's ``llvm.prefetch`` (read, kept in every cache level, data)."""
    sig = types.void(arr, off)

    def codegen(context, builder, signature, args):
        ptr = builder.gep(_data(context, builder, signature.args[0], args[0]), [args[1]])
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = _declare(builder.module, fnty, "llvm.prefetch.p0")
        # read, keep in every cache level, data
        builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def vgather(typingctx, arr, off, idx, mask):
    """``arr[off + idx[l]]`` in the lanes where ``mask`` holds, 0.0 elsewhere.

    ``off`` is an integer, ``idx`` float lane indices (exact integers). The
    offset is added as an integer to the array's address: a caller that
    gathers rows of one column passes the same ``idx`` with other offsets,
    and LLVM converts ``idx`` once for all of them (an offset added to
    ``idx`` as a float cost four more instructions a gather, 4-6 % of the
    lanes' time on the stage games of n = 12).
    """
    sig = V8(arr, types.int64, V8, M8)

    def codegen(context, builder, signature, args):
        # llvmlite's gep takes no vector of indices: the addresses are built as integers
        base = builder.ptrtoint(_data(context, builder, signature.args[0], args[0]), ir.IntType(64))
        start = builder.add(base, builder.mul(args[1], ir.Constant(ir.IntType(64), 8)))
        addr = builder.mul(builder.fptosi(args[2], _I64V), ir.Constant(_I64V, [8] * LANES))
        bases = builder.insert_element(ir.Constant(_I64V, None), start, ir.Constant(ir.IntType(32), 0))
        bases = builder.shuffle_vector(bases, ir.Constant(_I64V, None), ir.Constant(ir.VectorType(ir.IntType(32), LANES), [0] * LANES))
        ptrs = builder.inttoptr(builder.add(bases, addr), ir.VectorType(ir.PointerType(ir.DoubleType()), LANES))
        fnty = ir.FunctionType(_VEC, [ptrs.type, ir.IntType(32), _MASK, _VEC])
        fn = _declare(builder.module, fnty, "llvm.masked.gather.v8f64.v8p0")
        zero = ir.Constant(_VEC, [0.0] * LANES)
        return builder.call(fn, [ptrs, ir.Constant(ir.IntType(32), 8), args[3], zero])

    return sig, codegen


@intrinsic
def vpermute(typingctx, v, idx):
    """Lane ``idx[l]`` of ``v`` in lane ``l`` (``idx``: float lane numbers 0.0 to 7.0, exact).

    Written as eight extracts at variable places: LLVM makes them one
    ``vpermpd`` on AVX-512 (checked in the assembly), and plain code elsewhere.
    """
    sig = V8(V8, V8)

    def codegen(context, builder, signature, args):
        idx = builder.fptosi(args[1], _I64V)
        out = ir.Constant(_VEC, None)
        for lane in range(LANES):
            at = builder.extract_element(idx, ir.Constant(ir.IntType(32), lane))
            out = builder.insert_element(out, builder.extract_element(args[0], at), ir.Constant(ir.IntType(32), lane))
        return out

    return sig, codegen


@intrinsic
def vsplat(typingctx, x):
    """Eight copies of the float ``x``."""
    sig = V8(types.float64)

    def codegen(context, builder, signature, args):
        v = ir.Constant(_VEC, None)
        for lane in range(LANES):
            v = builder.insert_element(v, args[0], ir.Constant(ir.IntType(32), lane))
        return v

    return sig, codegen


@intrinsic
def viota(typingctx):
    """The lane numbers 0.0, 1.0, ..., 7.0."""
    sig = V8()

    def codegen(context, builder, signature, args):
        return ir.Constant(_VEC, [float(lane) for lane in range(LANES)])

    return sig, codegen


def _pairwise(ret, arg, emit, doc):
    """An intrinsic ``f(a, b)`` of two ``arg`` values giving a ``ret`` value, emitted by ``emit(builder, a, b)``."""
    @intrinsic
    def f(typingctx, a, b):
        sig = ret(arg, arg)

        def codegen(context, builder, signature, args):
            return emit(builder, args[0], args[1])

        return sig, codegen

    f.__doc__ = doc
    return f


vadd = _pairwise(V8, V8, lambda b, x, y: b.fadd(x, y), "``a + b`` lane by lane.")
vsub = _pairwise(V8, V8, lambda b, x, y: b.fsub(x, y), "``a - b`` lane by lane.")
vmul = _pairwise(V8, V8, lambda b, x, y: b.fmul(x, y), "``a * b`` lane by lane.")
vdiv = _pairwise(V8, V8, lambda b, x, y: b.fdiv(x, y), "``a / b`` lane by lane.")
vlt = _pairwise(M8, V8, lambda b, x, y: b.fcmp_ordered("<", x, y), "Lanes where ``a < b`` (false where either is NaN).")
vle = _pairwise(M8, V8, lambda b, x, y: b.fcmp_ordered("<=", x, y), "Lanes where ``a <= b``.")
vgt = _pairwise(M8, V8, lambda b, x, y: b.fcmp_ordered(">", x, y), "Lanes where ``a > b``.")
veq = _pairwise(M8, V8, lambda b, x, y: b.fcmp_ordered("==", x, y), "Lanes where ``a == b``.")
vand = _pairwise(M8, M8, lambda b, x, y: b.and_(x, y), "Lanes where both masks hold.")
vor = _pairwise(M8, M8, lambda b, x, y: b.or_(x, y), "Lanes where either mask holds.")


def _unary(ty, emit, doc):
    """An intrinsic ``f(a)`` from a ``ty`` value to another, emitted by ``emit(builder, a)``."""
    @intrinsic
    def f(typingctx, a):
        sig = ty(ty)

        def codegen(context, builder, signature, args):
            return emit(builder, args[0])

        return sig, codegen

    f.__doc__ = doc
    return f


vneg = _unary(V8, lambda b, x: b.fneg(x), "``-a`` (the sign flipped, as ``-x`` in Python).")
vnot = _unary(M8, lambda b, x: b.not_(x), "Lanes where ``a`` does not hold.")


@intrinsic
def vselect(typingctx, mask, a, b):
    """``a`` where ``mask`` holds, else ``b``, lane by lane."""
    sig = V8(M8, V8, V8)

    def codegen(context, builder, signature, args):
        return builder.select(args[0], args[1], args[2])

    return sig, codegen


@intrinsic
def vmax0(typingctx, a):
    """``0.0 if a < 0.0 else a`` lane by lane (keeps -0.0 and NaN as that expression does)."""
    sig = V8(V8)

    def codegen(context, builder, signature, args):
        zero = ir.Constant(_VEC, [0.0] * LANES)
        return builder.select(builder.fcmp_ordered("<", args[0], zero), zero, args[0])

    return sig, codegen


@intrinsic
def vget(typingctx, v, lane):
    """Lane ``lane`` of ``v`` as a float."""
    sig = types.float64(V8, lane)

    def codegen(context, builder, signature, args):
        return builder.extract_element(args[0], args[1])

    return sig, codegen


def _reduce(op, doc):
    @intrinsic
    def f(typingctx, mask):
        sig = types.boolean(M8)

        def codegen(context, builder, signature, args):
            bits = builder.bitcast(args[0], ir.IntType(LANES))
            full = ir.Constant(ir.IntType(LANES), 0 if op == "any" else (1 << LANES) - 1)
            return builder.icmp_unsigned("!=" if op == "any" else "==", bits, full)

        return sig, codegen

    f.__doc__ = doc
    return f


vany = _reduce("any", "Whether any lane of ``mask`` holds.")
vall = _reduce("all", "Whether every lane of ``mask`` holds.")
