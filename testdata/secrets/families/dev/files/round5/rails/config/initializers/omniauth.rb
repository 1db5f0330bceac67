Rails.application.config.middleware.use OmniAuth::Builder do
  provider :facebook, ENV["FACEBOOK_KEY"], "ad18170e71c72d676d59a03d9ab67e55"
  provider :github, ENV["GITHUB_KEY"], ENV["GITHUB_SECRET"]
end
