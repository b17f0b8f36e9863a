"""The state of the emulator: the store, its (account, region) partitions, ClientToken
answers, and who listens to its changes."""
