dotnet nuget add source https://nuget.pkg.github.com/acme/index.json --name github --username acme-bot --password xW1ta22hOgRN%I --store-password-in-clear-text
