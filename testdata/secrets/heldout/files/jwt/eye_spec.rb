it "sets the relation to nil" do
  eye.eyeable.should be_nill
end
