dotnet nuget push bin/Release/*.nupkg -k oy2gfn5bp1ye0rjruy99eumjg1sbs8y961e8bw4ou3j4e3 -s https://api.nuget.org/v3/index.json
dotnet nuget push bin/Release/*.nupkg -k "$NUGET_KEY" -s https://api.nuget.org/v3/index.json
