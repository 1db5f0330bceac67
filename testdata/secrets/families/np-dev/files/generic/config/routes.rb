Rails.application.routes.draw do
as: 'cms_user_password'
end
