Rails.application.configure do
   # config.facebook.key = "34cebc81c056a21bc66e212f947d73ec"
end
