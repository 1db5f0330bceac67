  .set("Authorization", "Bearer mF_9.B5f-4.1JqM")
  expect(body.access_token).toBe("2YotnFZFEjr1zCsicMWpAA");
  .set("Authorization", "Bearer Zq8fW2mK7xN4pR9tL3vB6yC1dH5jS0gE")
