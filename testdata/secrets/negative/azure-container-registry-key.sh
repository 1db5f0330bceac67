# a key one character longer, its signature followed by a letter past D, a placeholder
docker login acme.azurecr.io -u acme -p WKwje/zzah7/MttrUVhYD54W5T9wTHxClDNE28b7PC+ACRBLl49LM
docker login acme.azurecr.io -u acme -p wjBFJTW0n+sXeW05cPq5sR5s2gGSffMa3YJCPj3yNs+ACRZDbXh3
docker login acme.azurecr.io -u acme -p $ACR_PASSWORD
