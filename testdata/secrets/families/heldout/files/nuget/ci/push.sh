find . -name "*.nupkg"|xargs -I {} dotnet nuget push "{}"  --api-key  oy2l53fxd7xcf99dnyrqewssedgopshuticofclpespbyi  -s https://api.nuget.org/v3/index.json --skip-duplicate
