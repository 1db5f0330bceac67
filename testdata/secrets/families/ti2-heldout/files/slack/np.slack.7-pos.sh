curl -X POST https://hooks.slack.com/workflows/E00EXAMPLE2/A00EXAMPLE2/987654321098765432/xYzAbCdEfGhIjKlM
