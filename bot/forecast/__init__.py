"""bot.forecast: what comes after "why", pure (no I/O): when a job will likely run (the admissions' history,
its replay, the Kaplan-Meier curve, the estimator), who holds what it waits for, what would admit it, and who
uses a resource. It reads the admission engine (bot.trace) and its Explanation; the engine knows nothing of it."""
