docker run -d -e SUMO_ACCESS_ID=suO4lWnhtPw6Uz -e SUMO_ACCESS_KEY=SuW2D9dAdW3r1bRpa5rwRWUfoMpbDTheI15C23j4Ld2mZZoKWb00D6rKUpQ4JSAY sumologic/collector:latest
docker run -d -e SUMO_ACCESS_KEY sumologic/collector:latest
