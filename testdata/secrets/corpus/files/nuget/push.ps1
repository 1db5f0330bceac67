dotnet nuget push pkg.nupkg --api-key oy2bk9tu623s2n5oqdftqnqa1ql3vykljisutgefdsklsp --source https://api.nuget.org/v3/index.json
