"""Will it fit? A dry run of Kueue's admission for a job not yet created: the Workload Kueue would make of it,
added to the cluster's snapshot, then the engine's own explain, position, ETA and what-if. Pure: no I/O."""
