"""``python -m sensor_ghosts`` runs the command line."""

from .cli.main import main

main(prog_name="sensor-ghosts")
