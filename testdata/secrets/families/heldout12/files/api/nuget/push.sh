curl -X PUT https://www.nuget.org/api/v2/package -H "X-NuGet-ApiKey: oy26am1yjm3ox8inp3mkbevi9a9xb9kif7wap4jn2uvklq" -F package=@Orders.1.2.0.nupkg
