docker login acmeregistry.azurecr.io -u acmeregistry -p KdhVsTBkUAYXgSw1SkZuh0w1zonTn5uqtG//SsrkQp+ACRBlPhqH
docker push acmeregistry.azurecr.io/api:1.4.2
