"""nn.loss"""
