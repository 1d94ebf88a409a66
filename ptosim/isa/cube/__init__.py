"""The cube core's instructions (reference/cube_isa.md): L1 / L0 tiles, TLOAD into L1, TEXTRACT
and TMOV into L0A / L0B / the bias table, TMATMUL and TGEMV, and the fixpipe out of L0C (TSTORE,
TMOV to L1). One module per stage; ``geometry`` holds the fractal arithmetic they share.

Each target's ``CubeRules`` (``arch.spec.cube``) says how it addresses the buffers: the CPU
simulator element by element through each tile's own layout (``CubeAddressing.LOGICAL``), the NPU
targets as the intrinsics do (``FRACTALS``): whole fractals, compact strides, and a ``mad`` that
reads L0A / L0B and writes L0C at the geometry its m, k, n give, not at the tiles' Rows / Cols.
"""
