"""``python -m sensor_ghosts`` runs the command line."""

from .cli.main import main

# Guarded: the web server's worker processes start by importing this module
# ('spawn'), and must not run the command line again.
if __name__ == "__main__":
    main(prog_name="sensor-ghosts")
