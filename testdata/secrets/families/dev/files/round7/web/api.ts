const apiToken: string = "8KyVQ3JYmzSgnYNPPtPQvv9PBmGGwYPnqwYo";
const apiTokenExample: string = "YOUR_API_TOKEN_HERE";
