const url = `https://api.weather.example.net/v1/forecast?q=${city}&api_key=5Z2e2EZ533WdkJBvf72hMEinn1BjYceH`;
