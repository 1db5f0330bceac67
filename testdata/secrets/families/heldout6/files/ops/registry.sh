kubectl create secret docker-registry regcred --docker-server=registry.example.com --docker-username=ci --docker-password='mVwHVtJqgEh26oO58ZCk'
