Devise.setup do |config|
  config.omniauth :facebook, "9559195458467281", "8b251725230cbefa814dc55eaf3a910a", scope: "email"
end
