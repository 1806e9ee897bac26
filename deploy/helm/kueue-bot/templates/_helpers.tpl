{{/* Chart name, truncated to a DNS label. */}}
{{- define "kueue-bot.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Full name: fullnameOverride, or the release name with the chart name (or nameOverride) appended unless
it already contains it. */}}
{{- define "kueue-bot.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "kueue-bot.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kueue-bot.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "kueue-bot.labels" -}}
{{ include "kueue-bot.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end -}}

{{- define "kueue-bot.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "kueue-bot.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "kueue-bot.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* The Secret holding the Slack tokens: the user's, or the one this chart creates from .Values.secret. */}}
{{- define "kueue-bot.secretName" -}}
{{- if .Values.existingSecret -}}
{{- .Values.existingSecret -}}
{{- else -}}
{{- printf "%s-slack" (include "kueue-bot.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/* sqlite with one replica, kubernetes:// (ConfigMaps) with more, unless set. */}}
{{- define "kueue-bot.stateUrl" -}}
{{- if .Values.stateUrl -}}
{{- .Values.stateUrl -}}
{{- else if gt (int .Values.replicas) 1 -}}
kubernetes://
{{- else -}}
sqlite:////var/lib/kueue-bot/state.sqlite3
{{- end -}}
{{- end -}}

{{- define "kueue-bot.usesSqlite" -}}
{{- if hasPrefix "sqlite:" (include "kueue-bot.stateUrl" .) -}}true{{- end -}}
{{- end -}}

{{- define "kueue-bot.claimName" -}}
{{- default (printf "%s-state" (include "kueue-bot.fullname" .)) .Values.persistence.existingClaim -}}
{{- end -}}

{{/* Refuse combinations that cannot work, with a message that says what to change. */}}
{{- define "kueue-bot.validate" -}}
{{- if and (gt (int .Values.replicas) 1) (include "kueue-bot.usesSqlite" .) -}}
{{- fail "replicas > 1 cannot share a SQLite file: set stateUrl to \"kubernetes://\" (or leave it empty)" -}}
{{- end -}}
{{- if and .Values.ingress.enabled (ne .Values.mode "http") -}}
{{- fail "ingress.enabled is only useful with mode=http (Socket Mode needs no inbound traffic)" -}}
{{- end -}}
{{- if not .Values.existingSecret -}}
{{- $_ := required "set existingSecret, or secret.botToken to let the chart create the Secret" .Values.secret.botToken -}}
{{- if eq .Values.mode "socket" -}}
{{- $_ := required "mode=socket needs secret.appToken (xapp-..., scope connections:write)" .Values.secret.appToken -}}
{{- else -}}
{{- $_ := required "mode=http needs secret.signingSecret" .Values.secret.signingSecret -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* CLUSTERS (issue 17) from .Values.clusters: NAME=in-cluster, NAME=context:CTX, or a kubeconfig Secret
mounted at /etc/kueue-bot/clusters/NAME/kubeconfig (NAME=file:PATH[@CTX]). */}}
{{- define "kueue-bot.clusters" -}}
{{- $entries := list -}}
{{- range .Values.clusters -}}
{{- if .inCluster -}}
{{- $entries = append $entries (printf "%s=in-cluster" .name) -}}
{{- else if .kubeconfigSecret -}}
{{- $file := printf "%s=file:/etc/kueue-bot/clusters/%s/kubeconfig" .name .name -}}
{{- $entries = append $entries (ternary (printf "%s@%s" $file .context) $file (not (empty .context))) -}}
{{- else -}}
{{- $entries = append $entries (printf "%s=context:%s" .name (required "clusters[].context, kubeconfigSecret or inCluster" .context)) -}}
{{- end -}}
{{- end -}}
{{- join ";" $entries -}}
{{- end -}}
