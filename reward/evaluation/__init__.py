"""Offline evaluation of the reward: agreement statistics (`agreement`), calibration against human labels and the
regression gate (`calibrate`, `labels`), fidelity on public data (`fidelity`), reward-hacking probes (`probes`),
the exploit search (`exploit_search`), the generalization corpus's reader (`corpus`), and fitting the judge
cascade's thresholds (`cascade_fit`). Nothing here runs in the server; import the module you need."""
