kubectl create secret generic db-creds --from-literal=username=app --from-literal=password='iaNrvBOQ80TDdcDwAh'
kubectl create secret generic api --from-literal=token="$(cat /run/token)"
