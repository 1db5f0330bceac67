dotnet nuget update source internal --username ci --password g0HWelefWoLVie3tsQlN --store-password-in-clear-text
dotnet nuget update source internal --username ci --password $env:FEED_PAT --store-password-in-clear-text
