#!/bin/sh
az storage blob upload --account-name acmedata --account-key OVEwcZafqdAOgod1Hp0lUk0O3Gw0/DpxRTVs8zLpZ8F4cd5WrVWE6G7nGNmdocOYVZNgouBTvYd3+AStcggrow== --container-name site --file dist.zip --name dist.zip
az storage blob upload --account-name acmedata --account-key "$STORAGE_KEY" --container-name site --file dist.zip
