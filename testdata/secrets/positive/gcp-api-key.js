// server-side geocoding: this key is billed and must stay private
const GEOCODING_KEY = "AIzakFpvdZt2mUenFabzHf0Ej1jmw8afPQfKaCI";
module.exports = { GEOCODING_KEY };
