"""Use cases, shared by Slack, the CLI and the notifier: answer a question about a job, describe a queue, and a
person's watches (watch, unwatch, mute, snooze or stop the DMs about a job, the App Home's list).

Ports are Protocols (where the cluster view comes from, who may see what, what time it is, where watches are
kept; and the service as the Slack side asks it, over one cluster or several: `Service`); adapters (`bot.kube`,
a dump, `bot.notify.actions` over the state store, the tests) plug in at the composition root (`bot.server`),
which only wires them.

Access: every namespace an answer names is one the asker may see (`AccessPolicy.may_see`): the namespace asked
about, the jobs offered to choose from, the "did you mean" suggestions, the namespaces of a LocalQueue; other
teams' waiting jobs are named only when the asker may see all of their namespaces (`Answered.show_names`),
counted otherwise. Each question (`ask`, `queue`) gives one `AuditEntry` to the `audit` hook.

One module a use case, one class holding them (`botservice.BotService`): `ask` (a question about a job),
`views` (who holds a resource, a LocalQueue), `watches` (watch, unwatch, mute, snooze, the App Home), `fitting`
(will it fit, a LocalQueue's quota), on `base` (explaining a job, what an asker and an answer's readers may see,
the audit); the ports and simple adapters in `ports`, what the use cases take and give in `results`;
`explaining`: one job explained with its outlook (the CLI's door: it needs no other use case); `warmer`: every
ClusterQueue's ETA Estimators made ahead of the questions (on cluster changes and before each minute), so that no
question replays a queue.

This package imports none of its modules: each caller imports what it uses from the module that holds it, so
that the CLI, which explains one job, does not load the use cases, their ports and their results.
"""
