nuget sources update -Name Internal -Username svc-build -Password xEJGvGeJbwV9zGNpaTtt
nuget sources update -Name Internal -Username svc-build -Password $env:FEED_PASSWORD
