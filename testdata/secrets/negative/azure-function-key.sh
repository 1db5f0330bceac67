# a placeholder code, a variable header, the signature off its offset
curl "https://acme-fn.azurewebsites.net/api/report?code=<function-key>"
curl -H "x-functions-key: $FUNCTION_KEY" https://acme-fn.azurewebsites.net/api/report
curl -H "x-functions-key: ${{ secrets.FUNCTION_KEY }}" https://acme-fn.azurewebsites.net/api/report
echo Dw_0A3GAxoQBZ1yDyKnGzfA7Sq0W6Q8Ca48fxjy_Ez7AzFu1PLjqFA==
