apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-api
type: Opaque
stringData:
  API_KEY: ClX2BPQzvTX28hT3FkgvbaOoV8OBvrDH
