$ curl -H 'Authorization:rubygems_b9ce70c306b3a2e248679fbbbd66723d408d3c8c5f00566c' \
       https://rubygems.org/api/v1/web_hooks.json
