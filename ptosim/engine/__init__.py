"""The simpy engine: pipes, flags, data effects at simulated time, and the 950 SIMT model."""
