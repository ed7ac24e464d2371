{{/* The chart's name, or nameOverride. */}}
{{- define "daemonplan.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The name of the release's objects: fullnameOverride, else the release name
when it holds the chart's name, else <release>-<chart>.
*/}}
{{- define "daemonplan.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* The labels every object carries. */}}
{{- define "daemonplan.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "daemonplan.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* The labels that select the controller's pods. */}}
{{- define "daemonplan.selectorLabels" -}}
app.kubernetes.io/name: {{ include "daemonplan.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* The controller's ServiceAccount. */}}
{{- define "daemonplan.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "daemonplan.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name: the existing ServiceAccount to run as, since serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The controller's image: repository, then @digest or :tag. No release has
published an image yet, so neither has a default: unset, the render fails
saying what to set. */}}
{{- define "daemonplan.image" -}}
{{- $why := "no release has published the controller's image yet: build and push your own (README.md, Install: go run -C examples/image . && crane push dist/controller-oci REGISTRY/controller:TAG), then install with --set image.repository=REGISTRY/controller --set image.tag=TAG (or image.digest)" }}
{{- $repository := required (printf "image.repository is not set; %s" $why) .Values.image.repository }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" $repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" $repository (required (printf "image.tag (or image.digest) is not set; %s" $why) .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* The ServiceAccount as an RBAC subject. */}}
{{- define "daemonplan.subject" -}}
- kind: ServiceAccount
  name: {{ include "daemonplan.serviceAccountName" . }}
  namespace: {{ .Release.Namespace }}
{{- end }}
