nuget sources add -Name Contoso -Source https://pkgs.contoso.com/nuget/v3/index.json -Username ci -Password KcW0j9tunZGmpJBIgM
nuget setapikey oy23pkgz3neybiu42olxuvidz8cdcnzihgfruv08d7jjbg -Source https://api.nuget.org/v3/index.json
