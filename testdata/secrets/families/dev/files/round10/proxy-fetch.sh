curl -U squid:AayS-IXWo2DIyu -x http://proxy.corp.internal:3128 https://downloads.vendor.io/agent.tgz
curl -sS \
  --proxy-user relay:pVdKK_03yIePkKD \
  https://downloads.vendor.io/agent.sig
wget --proxy-password=dOCEPp26d3.3w4 --proxy-user=relay https://downloads.vendor.io/agent.tgz
curl --tlsuser ci --tlspassword dwCwNr-fQ110PTHq https://srp.corp.internal/
wget --ftp-password="$FTP_PASSWORD" ftp://ftp.corp.internal/pub/
