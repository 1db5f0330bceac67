dotnet nuget push .\out\*.nupkg -k oy2er16dp0r068m6p36u4bvr9nmkescfm1pf9lek1bgn3n -s https://api.nuget.org/v3/index.json
$env:NUGET_KEY = "oy2gdbfofub9ecpohsfdndem7nr8sui1g8le3ptnljqhlu"
# nuget key = af7e33adc0rq7ls6ijcfmb5rgf1gp2o0tqk6d8s5p21k6t
