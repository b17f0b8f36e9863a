"""Every option, declared once: the options table, how values are parsed and checked, how
the layers (marker, command line, ini, the emulator's own values) combine, and the current
settings of a running emulator."""
