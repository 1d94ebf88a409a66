"""The PTO instructions: one module per family (definitions, checks, reference semantics).

Importing ``ptosim.isa.families`` imports every family (the facade does), so each has
registered its instructions with ``ptosim.isa.registry`` before anything asks the registry.
"""
