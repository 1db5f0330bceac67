export const PUBLIC_TOKEN = "h1k2e5Xl6tx9ZiJ7WuTMHLnQoVG0qZDl";
const publicApiKey = "f6yIs0z55h5GKwjEkbejKyYBDT68yA4Y";
const privateApiKey = "r9QmV2xW7tLp4ZcN8bKs3HdJ6fYg1RaE";
