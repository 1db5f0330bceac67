apiVersion: v1
data:
	password: UyFCXCpkJHpEc2I9
	username: YWRtaW4=
kind: Secret
metadata:
	name: db-user-pass
type: Opaque
