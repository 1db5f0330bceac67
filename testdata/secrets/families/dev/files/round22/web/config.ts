export const clarifaiKey = "Wq4fNc8Lm2Xr7Tb9Kp3Zs6Vd1Hg5Jy0E";
  chatbot_auth_token: "Bearer 5RzDGrpFKkrA_90yM_BFmyxKKAQkgu0B",
const scrapingBeeApiKey =
  "Q7XK2M9RPL4VZ8TN3WB6YH1CJ5FD0GSE8NQ2XK7MR4PL9VZ3TW6BY1HC5JF0DG";
const cacheKey = "user_profile_settings_v2_cache";
export const routingKey = "orders.created.eu-west-1.v3";
