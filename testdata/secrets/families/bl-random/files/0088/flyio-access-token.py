flyToken = "FlyV1 FwobE4,RF1VUmBZNdBMdBJf8T3vGXlGzmQYoD2tqAM6WCP/y-4oc=XXO_P,dy_V,+BLfWfQfK8faInJwJ2x/wVX2e=z6F9flrb8tZ1"
