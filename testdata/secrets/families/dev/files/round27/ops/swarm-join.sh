#!/bin/sh
docker swarm join --token SWMTKN-1-722xugyxr6z7kl7bexdibn62df542afgpyrdh0kjtwhumnkskm-kh7hx3oxtbaq10n6rkse8im7d 10.0.4.12:2377
echo "SWMKEY-1-DKhq0PUiduLMHW8pHeVXhmOiPC/zw8/xQZupgnE/IBA" | docker swarm unlock
docker swarm join --token SWMTKN-1-<worker-token> 10.0.4.12:2377
