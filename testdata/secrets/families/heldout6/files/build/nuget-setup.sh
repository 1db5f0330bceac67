dotnet nuget add source https://pkgs.example.com/v3/index.json -n internal -u ci --password 6w5v8d936VPovKkFOx --store-password-in-clear-text
