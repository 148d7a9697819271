"""sensor-ghosts: rules engine, setup generator, solver and hints for the board
game *Sensor Ghosts*."""

__version__ = "0.1.0"
