"""Offline evaluation of the reward: agreement statistics (`agreement`), calibration against human labels and the
regression gate (`calibrate`, `labels`), fidelity on public data (`fidelity`), reward-hacking probes (`probes`) and
the exploit search (`exploit_search`). Nothing here runs in the server; import the module you need."""
