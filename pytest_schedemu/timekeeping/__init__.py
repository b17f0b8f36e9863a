"""The emulator's time: the virtual and real clocks, and process time held in lockstep."""
