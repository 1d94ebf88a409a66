"""Which devices a test runs on.

Results (GM bits, findings, errors) depend only on a device's target family and its memory and
sync parameters, so instruction tests run one device per family. Timed tests run every device
whose timing differs: a3's config equals a2's and 950dt differs from 950pr only in timing, which
tests/targets/test_device_configs.py checks, so that dropping them here loses nothing.
"""

ALL_DEVICES = ("cpu", "a2", "a3", "950pr", "950dt")  # every shipped device (listings, the demo)
ONE_PER_TARGET = ("cpu", "a2", "950pr")  # one device per target family: results
NPU_DEVICES = ("a2", "950pr")  # one per timed family
A2A3_TIMED = ("a2",)  # a3 times exactly as a2
A5_TIMED = ("950pr", "950dt")  # 950dt has other bandwidths
TIMED_DEVICES = A2A3_TIMED + A5_TIMED
TARGET_OF = {"cpu": "cpu", "a2": "a2a3", "a3": "a2a3", "950pr": "a5", "950dt": "a5"}
