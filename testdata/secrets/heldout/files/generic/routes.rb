Rails.application.routes.draw do
  get '/passwords/:id/edit' => "cms/sites/passwords#edit", as: 'edit_password'
  put '/forgot-password' => "cms/sites/passwords#update", as: 'update_password'
end
